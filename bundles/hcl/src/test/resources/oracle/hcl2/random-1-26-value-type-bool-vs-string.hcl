o{
a=true?""!=[]:true?[""][0]:[]
}