print("root app")
