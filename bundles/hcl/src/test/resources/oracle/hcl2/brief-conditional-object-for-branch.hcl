a = !true ? { for k in { a = "", b = "" } : k => [][""] } : true
b = true ? 3 : { for v in { b = false } : "" => false ? "" : [] }
c = true ? { a = 9 } == 3 : { for v in [false] : "" => 0 + false... }
d = true ? { a = 1 } : { for k, v in { a = 1, b = 2 } : "a" => v }
e = true ? { a = "x" } : { for k, v in { a = 1 } : k => v }
f = true ? 1 : { for k, v in { a = 1 } : (k == "a" ? null : k) => v }
