import os
os.system("./evil.sh")
