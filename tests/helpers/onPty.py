"""Runs a command on a real pseudo-terminal (160 columns) and copies what it prints to stdout.

Exits with the command's exit code. Tests use it to see the CLI as a person at a terminal does:
process.stderr.isTTY is true and the live display is chosen by default.
"""
import fcntl
import os
import pty
import struct
import sys
import termios

pid, fd = pty.fork()
if pid == 0:
    # The child's stdin is the terminal: give it a size before the program reads it.
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    os.execvp(sys.argv[1], sys.argv[1:])

while True:
    try:
        data = os.read(fd, 65536)
    except OSError:  # EIO: the terminal closed when the program exited
        break
    if not data:
        break
    os.write(1, data)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
