e = 7>0e8&&(5!=6)?4%(4):true?[[],""]:[false?[{é:7}]:""]
f = "false"||{g:false?true?true?0:{k:null}:8:false}==""?5:(6)
k = [5<7?false:true?null:""]
