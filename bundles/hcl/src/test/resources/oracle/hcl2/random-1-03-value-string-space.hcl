R""{
v{
v{
x=<<-__Y
	${~"%{if false}%{endif}u"}
	}
__Y
}
}
}