a""{
a=<<-END
 "
%{~for m in[""]}%{if false}%{endif}%{endfor}
END
}