a = { for i, x in [7] : "" => true ? "" : x[*].y }
b = true ? "" : [1][*].y
c = true ? [""] : [1][*]
d = true ? [""] : null[*]
