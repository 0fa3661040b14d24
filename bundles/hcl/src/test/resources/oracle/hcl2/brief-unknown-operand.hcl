a = { for k in [] : k => false if (k > true) }
b = [for x in [] : x if x && 1]
c = [for x in [] : x if x || true]
d = [for x in [] : x if x == "a"]
e = [for x in [] : x if -x > 0]
