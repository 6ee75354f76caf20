print("sdl-run")
