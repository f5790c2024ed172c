def run: .;
