# Twelfth session, device calls 6 and 7: the figure that counts for sm90.cu as committed at
# c8ac9d1, by the eleventh session's figure script, unchanged (see its header): 6a/7a
# (`carry: [".whl"]`) land the wheels, 6b/7b (`carry: [".lab12"]`: the bundle without its wheels,
# and the file as .lab12/sm90.cu) run kseek workers, verify and bench on the same warm machine.
# Usage: bash s12_run6.sh a|b
exec bash "$(dirname "$0")/s11_run4.sh" "$@"
