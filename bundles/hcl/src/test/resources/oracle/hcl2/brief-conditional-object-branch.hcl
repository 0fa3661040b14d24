x = "${true}" || false ? "" : {b : false ? false : []}
y = true ? {a = 1} : {a = "x"}
