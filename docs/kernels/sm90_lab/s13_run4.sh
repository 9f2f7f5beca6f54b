# Thirteenth session, device calls 4 (a, then b): the figure that counts for sm90.cu with the pool
# (as committed after run 3), by the eleventh session's figure script, unchanged (see its header):
# 4a (`carry: [".whl"]`) lands the wheels, 4b (`carry: [".lab12"]`: the bundle without its wheels,
# and the file as .lab12/sm90.cu) runs kseek workers, verify and bench on the same warm machine.
# Usage: bash s13_run4.sh a|b
exec bash "$(dirname "$0")/s11_run4.sh" "$@"
