a = !true ? true : !false ? null : 4
b = {e : "true" && true ? false ? [] : null : "", 1 = 9}
c = {for x in {} : "" => [[]] if false ? 9 : 3 == "${x}"}
d = true ? null : 4
e = false ? 1 : (true ? null : "")
