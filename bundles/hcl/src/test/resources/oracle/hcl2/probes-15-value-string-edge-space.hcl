a=<<-Y
	k
%{~for e in[]}%{endfor}
Y
