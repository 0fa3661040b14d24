a = true()
