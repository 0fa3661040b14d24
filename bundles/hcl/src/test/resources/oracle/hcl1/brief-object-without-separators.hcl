ports = {enabled = "15s" region = 3946}
