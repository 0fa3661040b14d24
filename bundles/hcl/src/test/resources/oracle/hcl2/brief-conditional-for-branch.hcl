f = !"${true}" ? [for i in [true] : i != [i + false]] : {e = "", (7) : null}
g = false || true ? false : false ? ["%{for m in []}%{endfor}"] : [for e in [""] : 6 + true]
h = true ? [for v in [1, 2] : v] : [for v in ["a", "b"] : v]
