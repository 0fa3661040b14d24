e{
i=<<END
%{if 3=={0:e}}%{endif}%{for i in[]}%{endfor}
END
}