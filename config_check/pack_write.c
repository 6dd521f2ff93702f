/* `config_check -d [FILE ...]`: the static pack (spec/configcheck.md §A.3,
 * §A.4): env, pip and hyperparameters/hyperparameters_static.json, deflated
 * entries dated 1980-01-01, as msprobe's ConfigChecker writes them. */
#include "config_check/cc.h"
#include "config_check/hyper.h"
#include "base/err.h"
#include "base/files.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/outdir.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "format/jsonw.h"
#include "format/yaml_read.h"
#include "format/zip_write.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* ---- env ------------------------------------------------------------------ */

/* json.dumps's string with ensure_ascii, of a value Python decoded from the
 * environment with surrogateescape: an undecodable byte is \udcXX. */
static void env_str(strbuf *sb, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s, *end = u + n;
    sb_addc(sb, '"');
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c < 0x80) {
            if (c == '"' || c == '\\')
                sb_addf(sb, "\\%c", c);
            else if (c == '\n')
                sb_adds(sb, "\\n");
            else if (c == '\r')
                sb_adds(sb, "\\r");
            else if (c == '\t')
                sb_adds(sb, "\\t");
            else if (c == '\b')
                sb_adds(sb, "\\b");
            else if (c == '\f')
                sb_adds(sb, "\\f");
            else if (c < 0x20 || c == 0x7f)
                sb_addf(sb, "\\u%04x", c);
            else
                sb_addc(sb, (char)c);
            i++;
            continue;
        }
        size_t k = utf8_seq_len(u + i, end);
        if (!k) {
            sb_addf(sb, "\\udc%02x", c);
            i++;
            continue;
        }
        unsigned cp = c & (0x7fu >> k);
        for (size_t j = 1; j < k; j++)
            cp = cp << 6 | (u[i + j] & 0x3f);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            sb_addf(sb, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        } else {
            sb_addf(sb, "\\u%04x", cp);
        }
        i += k;
    }
    sb_addc(sb, '"');
}

/* json.dumps(dict(os.environ), indent=4): environment order, a name given
 * twice keeps its first place and its last value. */
static size_t env_json(strbuf *sb)
{
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    size_t *keep = xmalloc_array(n ? n : 1, sizeof *keep), nk = 0;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t kl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        size_t k = 0;
        while (k < nk && !(strncmp(environ[keep[k]], environ[i], kl) == 0 && environ[keep[k]][kl] == '='))
            k++;
        if (k < nk)
            keep[k] = i; /* the last value, at the first place */
        else if (eq)
            keep[nk++] = i;
    }
    if (!nk) {
        sb_adds(sb, "{}");
    } else {
        sb_addc(sb, '{');
        for (size_t k = 0; k < nk; k++) {
            const char *v = environ[keep[k]], *eq = strchr(v, '=');
            sb_adds(sb, k ? ",\n    " : "\n    ");
            env_str(sb, v, (size_t)(eq - v));
            sb_adds(sb, ": ");
            env_str(sb, eq + 1, strlen(eq + 1));
        }
        sb_adds(sb, "\n}");
    }
    free(keep);
    return nk;
}

/* ---- pip ------------------------------------------------------------------- */

/* What msprobe runs in-process: every distribution importlib.metadata finds
 * on sys.path, "Name=version" a line, in its order. */
static const char pip_script[] =
    "import importlib.metadata as m\n"
    "for d in m.distributions():\n"
    "    if d.metadata:\n"
    "        print(f\"{d.metadata.get('Name')}={d.version}\")\n";

/* Run the interpreter; its output in *out. 0, or -1 when it cannot run or
 * fails (nothing recorded: the caller falls back to scanning). */
static int pip_from_python(const char *python, strbuf *out)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    /* the child starts with no signal blocked (ours are taken by a thread) */
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
    char *argv[] = {(char *)python, (char *)"-c", (char *)pip_script, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, python, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fd[1]);
    if (rc != 0) {
        close(fd[0]);
        return -1;
    }
    char buf[65536];
    for (;;) {
        ssize_t r = read(fd[0], buf, sizeof buf);
        if (r > 0) {
            sb_add(out, buf, (size_t)r);
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        break;
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The Name: and Version: headers of a METADATA / PKG-INFO file. */
static int metadata_line(const char *path, strbuf *out)
{
    mapped_file f;
    if (file_load(path, (size_t)64 << 20, &f) != 0) {
        err_clear();
        return 0;
    }
    const char *s = (const char *)f.data, *end = s + f.size;
    const char *name = NULL, *version = NULL;
    size_t nl = 0, vl = 0;
    while (s < end) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        size_t len = e ? (size_t)(e - s) : (size_t)(end - s);
        if (len && s[len - 1] == '\r')
            len--;
        if (!len)
            break; /* the headers end at the first empty line */
        if (!name && len > 5 && !strncasecmp(s, "Name:", 5)) {
            name = s + 5;
            nl = len - 5;
        } else if (!version && len > 8 && !strncasecmp(s, "Version:", 8)) {
            version = s + 8;
            vl = len - 8;
        }
        s = e ? e + 1 : end;
    }
    int found = 0;
    if (name && version) {
        while (nl && (*name == ' ' || *name == '\t'))
            name++, nl--;
        while (vl && (*version == ' ' || *version == '\t'))
            version++, vl--;
        sb_addf(out, "%.*s=%.*s\n", (int)nl, name, (int)vl, version);
        found = 1;
    }
    file_unmap(&f);
    return found;
}

static void scan_dir(const char *dir, strbuf *out)
{
    char **names;
    long n = dir_list(dir, &names);
    if (n < 0) {
        err_clear();
        return;
    }
    for (long i = 0; i < n; i++) {
        const char *nm = names[i];
        char *p = path_join(dir, nm), *meta = NULL;
        if (path_has_suffix(nm, ".dist-info"))
            meta = path_join(p, "METADATA");
        else if (path_has_suffix(nm, ".egg-info"))
            meta = path_kind(p) == PATH_DIR ? path_join(p, "PKG-INFO") : xstrdup(p);
        if (meta)
            metadata_line(meta, out);
        free(meta);
        free(p);
    }
    names_free(names, n);
}

/* Without Python: the distributions in the usual site-packages folders. */
static void pip_from_scan(strbuf *out)
{
    const char *pp = getenv("PYTHONPATH");
    if (pp && *pp) {
        char *copy = xstrdup(pp), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
            scan_dir(d, out);
        free(copy);
    }
    static const char *const roots[] = {"VIRTUAL_ENV", "CONDA_PREFIX"};
    strbuf pat = STRBUF_INIT;
    for (int k = 0; k < 2; k++) {
        const char *r = getenv(roots[k]);
        if (!r || !*r)
            continue;
        sb_reset(&pat);
        sb_addf(&pat, "%s/lib/python3*/site-packages", r);
        glob_t g;
        if (glob(sb_str(&pat), 0, NULL, &g) == 0)
            for (size_t i = 0; i < g.gl_pathc; i++)
                scan_dir(g.gl_pathv[i], out);
        globfree(&g);
    }
    static const char *const patterns[] = {"/usr/local/lib/python3*/dist-packages", "/usr/local/lib/python3*/site-packages",
                                           "/usr/lib/python3/dist-packages", "/usr/lib/python3*/site-packages"};
    for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
        glob_t g;
        if (glob(patterns[k], 0, NULL, &g) == 0)
            for (size_t i = 0; i < g.gl_pathc; i++)
                scan_dir(g.gl_pathv[i], out);
        globfree(&g);
    }
    sb_free(&pat);
}

/* "pip": Python's own list when an interpreter runs (MSPROBE_PYTHON, else
 * python3 on PATH; MSPROBE_PYTHON set empty: none), else a scan. */
static const char *collect_pip(strbuf *out)
{
    const char *py = getenv("MSPROBE_PYTHON");
    if (!py)
        py = "python3";
    if (*py) {
        if (pip_from_python(py, out) == 0)
            return "importlib.metadata";
        sb_reset(out);
    }
    pip_from_scan(out);
    return "site-packages scan";
}

/* ---- hyper-parameters and the pack ------------------------------------------- */

enum { FILE_SHELL, FILE_YAML };

/* The parser a file's suffix picks: .sh, .yaml (and .yml, which 8.1.0
 * refuses); -1 otherwise. */
static int file_kind(const char *path)
{
    if (path_has_suffix(path, ".sh"))
        return FILE_SHELL;
    if (path_has_suffix(path, ".yaml") || path_has_suffix(path, ".yml"))
        return FILE_YAML;
    return -1;
}

/* One file's parameters into *acc (with *shared, msprobe's yaml dict that
 * every yaml file of the pack adds to). A file that cannot be parsed gives
 * nothing, with a warning, as msprobe's parser wrapper does. */
static void parse_file(const char *path, int kind, hp_dict *acc, hp_dict *shared, arena *a)
{
    if (kind == FILE_SHELL) {
        mapped_file f;
        if (file_load(path, (size_t)1 << 30, &f) != 0) {
            log_warn("%s parsing error, skip file path: %s", "ShellParser", err_message());
            err_clear();
            return;
        }
        size_t bad = utf8_invalid_at((const char *)f.data, f.size);
        if (bad < f.size) {
            log_warn("ShellParser parsing error, skip file path: %s, error: not UTF-8 text (byte %zu)", path, bad);
        } else {
            hp_dict d;
            hp_init(&d, a);
            shell_parse((const char *)f.data, f.size, &d);
            hp_update(acc, &d);
            hp_free(&d);
        }
        file_unmap(&f);
        return;
    }
    jval doc;
    if (yaml_load_file(path, YAML_ANY_NAME, a, &doc) != 0) {
        log_warn("YamlParser parsing error, skip file path: %s", err_message());
        err_clear();
        return;
    }
    yaml_flatten(&doc, shared);
    hp_update(acc, shared);
}

static int write_pack(const char *path, const strbuf *env, const strbuf *pip, const strbuf *hyper, out_run *run)
{
    char *tmp = out_tmp_create(path);
    if (!tmp)
        return -1;
    FILE *f = out_tmp_fopen(tmp);
    if (!f) {
        out_tmp_discard(tmp);
        return err_set(ERR_OUTPUT, path, "cannot write: %s", strerror(errno));
    }
    zip_writer w;
    zip_writer_init(&w, zip_sink_stdio, f);
    int rc = zip_writer_add(&w, "env", env->buf, env->len, 8);
    if (rc == 0)
        rc = zip_writer_add(&w, "pip", pip->buf ? pip->buf : "", pip->len, 8);
    if (rc == 0 && hyper->len)
        rc = zip_writer_add(&w, "hyperparameters/hyperparameters_static.json", hyper->buf, hyper->len, 8);
    if (rc == 0)
        rc = zip_writer_finish(&w);
    zip_writer_free(&w);
    if (fclose(f) != 0 && rc == 0)
        rc = err_set(ERR_OUTPUT, path, "cannot write: %s", strerror(errno));
    if (rc != 0) {
        if (err_cause() == ERR_OUTPUT && !strstr(err_message(), path))
            err_set(ERR_OUTPUT, path, "%s", err_message());
        out_tmp_discard(tmp);
        return -1;
    }
    return out_run_replace(run, tmp, path, "pack");
}

int cc_pack(const cc_opts *given, char **files, int nfiles)
{
    /* msprobe appends to an existing pack (its entries then appear twice,
     * the training's entries beside ours): refused, unless --force replaces
     * it */
    out_run *run = out_run_new();
    char *out = out_named(run, given->out, "config_check_pack.zip", OUT_REFUSES, given->force);
    if (!out || !path_has_suffix(out, ".zip")) {
        if (out)
            err_set(ERR_USAGE, out, "output zip path must be a string and ends with '.zip'");
        out_run_abandon(run);
        free(out);
        return -1;
    }
    cc_opts opts = *given;
    opts.out = out;
    const cc_opts *o = &opts;
    /* every file's parser first: an unknown suffix stops before anything is
     * written (msprobe raises after writing env and pip) */
    int *kind = xmalloc_array((size_t)nfiles + 1, sizeof *kind);
    for (int i = 0; i < nfiles; i++) {
        kind[i] = -2;
        if (path_kind(files[i]) != PATH_FILE)
            continue;
        kind[i] = file_kind(files[i]);
        if (kind[i] < 0) {
            const char *dot = strrchr(files[i], '.'), *slash = strrchr(files[i], '/');
            free(kind);
            free(out);
            out_run_abandon(run);
            return err_set(ERR_USAGE, files[i], "Invalid parser type: '%s' (launch scripts end in .sh, yaml files "
                                                "in .yaml or .yml)", dot && (!slash || dot > slash) ? dot : "");
        }
    }
    arena a;
    arena_init(&a, 64 * 1024);
    strbuf env = STRBUF_INIT, pip = STRBUF_INIT, hyper = STRBUF_INIT;
    size_t nenv = env_json(&env);
    const char *pip_src = collect_pip(&pip);
    size_t npip = 0;
    for (size_t i = 0; i < pip.len; i++)
        npip += pip.buf[i] == '\n';
    hp_dict acc, shared;
    hp_init(&acc, &a);
    hp_init(&shared, &a);
    for (int i = 0; i < nfiles; i++) {
        if (kind[i] == -2)
            log_warn("Script path %s is not a file.", files[i]);
        else
            parse_file(files[i], kind[i], &acc, &shared, &a);
    }
    if (acc.n)
        hp_json(&acc, &hyper);
    else if (nfiles)
        log_warn("Failed to extract hyperparameters from script(s): no option or yaml value found");
    char *dir = path_dirname(o->out);
    int rc = out_run_mkdir(run, dir);
    if (rc == 0)
        rc = write_pack(o->out, &env, &pip, &hyper, run);
    if (rc != 0) {
        err_record e;
        err_take(&e);
        out_run_rollback(run);
        err_restore(&e);
    } else {
        log_info("packed env (%zu variables), pip (%zu distributions, %s)%s%.0zu%s -> %s", nenv, npip, pip_src,
                 acc.n ? ", hyperparameters (" : "", acc.n, acc.n ? " parameters)" : "", o->out);
    }
    free(dir);
    out_run_free(run);
    hp_free(&acc);
    hp_free(&shared);
    sb_free(&env);
    sb_free(&pip);
    sb_free(&hyper);
    arena_free(&a);
    free(kind);
    free(out);
    return rc;
}
