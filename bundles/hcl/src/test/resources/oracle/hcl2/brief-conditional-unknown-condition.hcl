a = [for x in {} : x if x != true ? 4 : 1]
b = { for k, x in {} : k => x if x == true ? "" : [] }
c = [for x in [] : x if (x + 1)]
d = [for x in [] : x if x == 1 ? true : "false"]
e = true ? [for x in [1, 2] : x if x > 1 ? true : false] : 3
