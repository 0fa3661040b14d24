a = true ? [1] : ["a"]
b = false ? {x = 1} : {y = "z"}
c = true ? 1 : "a"
d = true ? 1 : false
