t={"":[7.9*0.1]
""="%{for x in[]}%{endfor}%{if""==null}%{endif}"}