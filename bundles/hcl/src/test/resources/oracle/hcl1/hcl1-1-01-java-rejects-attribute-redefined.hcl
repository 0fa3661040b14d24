servers=[]
servers={""=""}