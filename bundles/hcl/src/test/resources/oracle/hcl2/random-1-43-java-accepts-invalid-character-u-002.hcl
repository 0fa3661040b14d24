t=<<ÉOT
%{if a}Å,%{endif}
ÉOT