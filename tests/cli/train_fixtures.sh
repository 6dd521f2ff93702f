# Sourced by tests/cli/run.sh: the runs of tests/cli/train_cases.txt
# (train_compare), made in $F/train (never checked in) by tests/tools/gen_train
# and gen_monitor, and the damaged and wrong files of its bad-input cases.
# Needs $F, $top, $BIN and $BUILD of run.sh, and python3.
# shellcheck disable=SC2154 # $top, $BIN and $BUILD come from tests/cli/run.sh
TR=$F/train
G="$top/$BUILD/tools/gen_train"
mkdir -p "$TR"
# a: a resumed run in two event files with its arguments as texts; a2: the
# same curves; b: another seed, written as tensors, one argument changed;
# c, d: two more seeds (a band with a)
"$G" --tb "$TR/a" --tags 8 --steps 120 --files 2 --seed 1 --text > /dev/null
"$G" --tb "$TR/a2" --tags 8 --steps 120 --files 1 --seed 1 --text > /dev/null
"$G" --tb "$TR/b" --tags 8 --steps 120 --files 1 --seed 2 --drift 0.5 --tensor --text > /dev/null
"$G" --tb "$TR/c" --tags 8 --steps 120 --files 1 --seed 3 > /dev/null
"$G" --tb "$TR/d" --tags 8 --steps 120 --files 1 --seed 4 > /dev/null
"$G" --log "$TR/a.log" --steps 120 --seed 1 > /dev/null
"$BIN" train_compare -q -n "$TR/a" --save-golden "$TR/a.json"
# the same run with a header-only event file between its sessions (a
# SummaryWriter opened and closed), under results/
mkdir -p "$TR/resumed/results"
cp -p "$TR"/a/events.* "$TR/resumed/results/"
python3 - "$TR" <<'PY'
import os, struct, sys
tr = sys.argv[1]
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
def mask(c):
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
def record(data):
    h = struct.pack('<Q', len(data))
    return h + struct.pack('<I', mask(crc32c(h))) + data + struct.pack('<I', mask(crc32c(data)))
first = b'\x09' + struct.pack('<d', 1700000050.0) + b'\x1a\x0dbrain.Event:2'
p = os.path.join(tr, 'resumed/results/events.out.tfevents.1700000050.gen.999.0')
open(p, 'wb').write(record(first))
os.utime(p, (1700000060, 1700000060))
# header-only: a directory whose one file has no scalar
os.makedirs(os.path.join(tr, 'header_only'), exist_ok=True)
open(os.path.join(tr, 'header_only/events.out.tfevents.1700000000.gen.1.0'), 'wb').write(record(first))
os.makedirs(os.path.join(tr, 'empty'), exist_ok=True)
# damaged copies of a's second file: cut, a flipped byte, an impossible
# length, a record that is no event
src = sorted(f for f in os.listdir(os.path.join(tr, 'a')))
data = open(os.path.join(tr, 'a', src[1]), 'rb').read()
def put(name, files):
    d = os.path.join(tr, name)
    os.makedirs(d, exist_ok=True)
    for i, (f, b) in enumerate(files):
        open(os.path.join(d, f), 'wb').write(b)
        os.utime(os.path.join(d, f), (1700000100 + i, 1700000100 + i))
a0 = open(os.path.join(tr, 'a', src[0]), 'rb').read()
put('cut', [(src[0], a0), (src[1], data[:-7])])
flip = bytearray(data); flip[1000] ^= 0x10
put('crc', [(src[0], a0), (src[1], bytes(flip))])
huge = bytearray(data[:200]); n = 0
off = 0
while off < 100:
    n = struct.unpack('<Q', bytes(huge[off:off + 8]))[0]; last = off; off += n + 16
h = struct.pack('<Q', 1 << 40)
huge[last:last + 12] = h + struct.pack('<I', mask(crc32c(h)))
put('hugelen', [(src[1], bytes(huge))])
put('notevent', [(src[1], record(b'\x0a\x7f\x01'))])
g = lambda values: '{"lm loss": {"start_step": 1, "end_step": 2, "step_interval": 1, "values": %s}}' % values
for name, text in [('g_empty_object.json', '{}'), ('g_empty_file.json', ''),
                   ('g_list.json', '{"lm loss": {"start_step": 0, "end_step": 10, "step_interval": 5, "values": [1.0, 2.0]}}'),
                   ('g_no_values.json', g('{}')), ('g_twice.json', g('{"1": 1.0, "01": 2.0}')),
                   ('g_step.json', g('{"one": 1.0}')), ('g_malformed.json', g('{"1": 1.0,}')),
                   ('g_null.json', g('{"1": null}')), ('g_no_field.json', '{"lm loss": {"values": {"1": 1.0}}}')]:
    open(os.path.join(tr, name), 'w').write(text)
open(os.path.join(tr, 'none.log'), 'w').write('hello\nno iteration here\n')
open(os.path.join(tr, 'twice.log'), 'w').write(
    ' iteration        1/     100 | lm loss: 1.000000E+00 |\n iteration        1/     100 | lm loss: 1.500000E+00 |\n')
open(os.path.join(tr, 'mc_null.yaml'), 'w').write('METRICS: null\n')
open(os.path.join(tr, 'mc_list.yaml'), 'w').write('- lm loss\n')
open(os.path.join(tr, 'mc_perf.yaml'), 'w').write('MODEL_ARGS: {}\nMETRICS:\n  - "lm loss"\n  - "iteration-time"\n')
open(os.path.join(tr, 'mc_unknown.yaml'), 'w').write('METRICS: ["lm loss", "frobs"]\n')
PY
ln -s "$TR/a" "$TR/link"
# a training monitor's output and its monitor2tb conversion
"$top/$BUILD/tools/gen_monitor" --out "$TR/mon" --ranks 2 --layers 1 --steps 4 --window 2 --micro 1 > /dev/null
"$BIN" monitor2tb -m "$TR/mon" -o "$TR/mon_tb" > /dev/null
