#!/usr/bin/env python3
"""Independent readers for what msprobe's monitor converters write, to check
ours against msprobe's own outputs (python3 standard library only).

  monitor_check.py events DIR_OURS DIR_MSPROBE   TensorBoard event trees
  monitor_check.py db OURS.db MSPROBE.db         csv2db (monitor_metrics.db) databases
  monitor_check.py trend OURS.db MSPROBE.db      data2db trend databases (dump_data.trend.db)
  monitor_check.py dump-events FILE              print the (tag, step, value) records of one file

Event files: every TFRecord's length and data must carry a valid masked
CRC-32C (computed here by table, independently of the C code), the first
record must be the file_version event, and the set of (rank dir, type dir,
tag, step, float32 value bits) must be the same on both sides. Databases are
compared as query results: ids resolved to names, rows ordered.
Exit status 0 when equal, 1 with the differences printed otherwise.
"""
import math
import os
import sqlite3
import struct
import sys

# ---- CRC-32C, reflected polynomial 0x82F63B78 --------------------------------
TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ TABLE[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


def masked(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


# ---- protobuf wire format ------------------------------------------------------
def varint(buf, i):
    shift = v = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def fields(buf):
    """(field number, wire type, value) of a message; value: int, bytes."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 1:
            v = buf[i:i + 8]
            i += 8
        elif wt == 2:
            n, i = varint(buf, i)
            v = buf[i:i + n]
            i += n
        elif wt == 5:
            v = buf[i:i + 4]
            i += 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def records(path):
    data = open(path, "rb").read()
    i = 0
    while i < len(data):
        if i + 12 > len(data):
            raise ValueError("%s: truncated record header at byte %d" % (path, i))
        head = data[i:i + 8]
        (n,) = struct.unpack("<Q", head)
        (hc,) = struct.unpack("<I", data[i + 8:i + 12])
        if hc != masked(crc32c(head)):
            raise ValueError("%s: bad length CRC at byte %d" % (path, i))
        body = data[i + 12:i + 12 + n]
        if len(body) != n or i + 16 + n > len(data):
            raise ValueError("%s: truncated record at byte %d" % (path, i))
        (dc,) = struct.unpack("<I", data[i + 12 + n:i + 16 + n])
        if dc != masked(crc32c(body)):
            raise ValueError("%s: bad data CRC at byte %d" % (path, i))
        yield body
        i += 16 + n


def events(path):
    """The first event's fields and the (tag, step, value bits) of the scalars."""
    first = None
    scalars = []
    for k, body in enumerate(records(path)):
        ev = {"step": 0}
        for num, wt, v in fields(body):
            if num == 1 and wt == 1:
                ev["wall_time"] = struct.unpack("<d", v)[0]
            elif num == 2 and wt == 0:
                ev["step"] = v - (1 << 64) if v >= 1 << 63 else v
            elif num == 3 and wt == 2:
                ev["file_version"] = v.decode()
            elif num == 5 and wt == 2:
                vals = []
                for sn, swt, sv in fields(v):
                    if sn == 1 and swt == 2:
                        tag, val = None, None
                        for vn, vwt, vv in fields(sv):
                            if vn == 1 and vwt == 2:
                                tag = vv.decode()
                            elif vn == 2 and vwt == 5:
                                val = struct.unpack("<I", vv)[0]
                        vals.append((tag, val))
                ev["values"] = vals
            elif num == 10 and wt == 2:
                ev["source"] = b"".join(sv for sn, swt, sv in fields(v) if sn == 1).decode()
        if k == 0:
            first = ev
            if ev.get("file_version") != "brain.Event:2":
                raise ValueError("%s: the first event has no file_version brain.Event:2" % path)
            continue
        for tag, val in ev.get("values", []):
            if tag is None or val is None:
                raise ValueError("%s: a summary value without tag or simple_value" % path)
            scalars.append((tag, ev["step"], val))
    return first, scalars


def norm_bits(b):
    """float32 bits, every NaN made one (a NaN's payload is not data)."""
    f = struct.unpack("<f", struct.pack("<I", b))[0]
    return 0x7FC00000 if math.isnan(f) else b


def event_tree(top):
    out = {}
    nfiles = 0
    for dirpath, _, files in os.walk(top):
        for f in sorted(files):
            if "tfevents" not in f:
                continue
            nfiles += 1
            rel = os.path.relpath(dirpath, top)
            _, sc = events(os.path.join(dirpath, f))
            for tag, step, val in sc:
                key = (rel, tag, step)
                if key in out:
                    raise ValueError("%s: (%s, %d) twice" % (dirpath, tag, step))
                out[key] = norm_bits(val)
    return out, nfiles


def check_events(ours, theirs):
    a, na = event_tree(ours)
    b, nb = event_tree(theirs)
    bad = []
    if na != nb:
        bad.append("event files: %d vs msprobe's %d" % (na, nb))
    for k in sorted(set(a) | set(b), key=str):
        if a.get(k) != b.get(k):
            bad.append("%s: ours %s, msprobe %s" % (k, a.get(k), b.get(k)))
    return bad, "%d event files, %d scalars" % (na, len(a))


# ---- csv2db databases ------------------------------------------------------------
def rows(db, sql, args=()):
    return db.execute(sql, args).fetchall()


def db_content(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    metric = dict(rows(db, "SELECT metric_id, metric_name FROM monitoring_metrics"))
    target = {i: (n, v, m) for i, n, v, m in rows(db, "SELECT * FROM monitoring_targets")}
    out = {
        "global_stats": sorted(rows(db, "SELECT * FROM global_stats")),
        "metrics": sorted(metric.values()),
        "metric_stats": sorted((metric[i], s) for i, s in rows(db, "SELECT * FROM metric_stats")),
        "targets": sorted(target.values()),
        "base tables": sorted(r[0] for r in rows(db, "SELECT name FROM sqlite_master WHERE type='table' AND name "
                                                  "NOT LIKE 'metric\\_%\\_step\\_%' ESCAPE '\\'")),
    }
    parts, data = [], []
    for (name,) in rows(db, "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE "
                            "'metric\\_%\\_step\\_%' ESCAPE '\\'"):
        _, mid, _, s, e = name.split("_")
        m = metric[int(mid)]
        cols = [r[1] for r in rows(db, "PRAGMA table_info(%s)" % name)]
        pk = [r[1] for r in sorted(rows(db, "PRAGMA table_info(%s)" % name), key=lambda r: r[5]) if r[5]]
        check = rows(db, "SELECT sql FROM sqlite_master WHERE name=?", (name,))[0][0]
        check = " ".join(check.split()).replace("( ", "(").replace(" )", ")")
        check = check[check.index("CHECK"):check.index(")", check.index("CHECK")) + 1]
        parts.append((m, int(s), int(e), tuple(cols), tuple(pk), check))
        for r in rows(db, "SELECT * FROM %s" % name):
            t = target[r[2]]
            vals = tuple(None if x is None else float(x) for x in r[3:])
            data.append((m, r[0], r[1], t) + tuple(zip(cols[3:], vals)))
    out["partition tables"] = sorted(parts)
    out["rows"] = sorted(data, key=str)
    db.close()
    return out


def trend_content(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    metric = dict(rows(db, "SELECT metric_id, metric_name FROM monitoring_metrics"))
    target = {i: (n, v, m) for i, n, v, m in rows(db, "SELECT * FROM monitoring_targets")}
    tag = {i: (n, c, metric[m]) for i, n, c, m in rows(db, "SELECT * FROM monitoring_tags")}
    cols = [r[1] for r in rows(db, "PRAGMA table_info(trend_data)")]
    gcols = [r[1] for r in rows(db, "PRAGMA table_info(global_stats)")]
    out = {
        "tables": sorted(r[0] for r in rows(db, "SELECT name FROM sqlite_master WHERE type='table'")),
        "metrics": sorted(metric.items()),
        "targets": sorted(target.values()),
        "tags": sorted(tag.values()),
        "tag_target_mapping": sorted((tag[t], target[g]) for t, g in rows(db, "SELECT * FROM tag_target_mapping")),
        "trend_data columns": cols,
        "global_stats": (gcols, rows(db, "SELECT * FROM global_stats")),
        "trend_data": sorted(((r[0], r[1], target[r[2]], metric[r[3]]) + tuple(r[4:]))
                             for r in rows(db, "SELECT * FROM trend_data")),
    }
    db.close()
    return out


def compare_dicts(a, b):
    bad = []
    for k in b:
        if a.get(k) != b[k]:
            x, y = a.get(k), b[k]
            if isinstance(x, list) and isinstance(y, list):
                sx, sy = set(map(str, x)), set(map(str, y))
                extra, missing = sorted(sx - sy)[:5], sorted(sy - sx)[:5]
                bad.append("%s: %d vs msprobe's %d; ours only %s; msprobe only %s" % (k, len(x), len(y), extra,
                                                                                      missing))
            else:
                bad.append("%s: ours %r, msprobe %r" % (k, x, y))
    return bad


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    what = sys.argv[1]
    try:
        if what == "dump-events":
            first, sc = events(sys.argv[2])
            print(first)
            for t, s, v in sc:
                print(t, s, struct.unpack("<f", struct.pack("<I", v))[0])
            return 0
        if what == "events":
            bad, summary = check_events(sys.argv[2], sys.argv[3])
        elif what in ("db", "trend"):
            load = db_content if what == "db" else trend_content
            a, b = load(sys.argv[2]), load(sys.argv[3])
            bad = compare_dicts(a, b)
            summary = "%d rows" % len(b["rows" if what == "db" else "trend_data"])
        else:
            print(__doc__)
            return 2
    except (ValueError, sqlite3.Error, OSError) as e:
        print("error: %s" % e)
        return 1
    for line in bad[:20]:
        print("  " + line)
    if len(bad) > 20:
        print("  ... and %d more" % (len(bad) - 20))
    print(("DIFFERENT: " if bad else "same: ") + summary)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
