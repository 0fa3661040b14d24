a = x.1e3
