a = true || 1
b = false && [][0]
c = "${true}" || false
d = false && true
e = true || false
