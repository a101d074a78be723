print("language bench: not built yet")
