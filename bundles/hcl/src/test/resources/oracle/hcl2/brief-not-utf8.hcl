a = "Köln"
