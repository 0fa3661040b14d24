a = true ? { a = null, b = false, c = {} } : { x = 1 }
b = false ? { a = null, b = false, c = {} } : { x = 1 }
c = true ? { a = 1, b = "x" } : { c = null }
d = true ? { a = null, b = null } : { x = 1 }
