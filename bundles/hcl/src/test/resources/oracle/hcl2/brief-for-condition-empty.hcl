x = [for x in {} : 8 if false || true != true ? null : [6, ""]]
y = {for i, v in [] : "${i}" => 0 if "${i}" < 5}
z = [for v in [] : v if v + 1]
w = [for v in [true, false] : v if v]
