/* pdt_library.c - see pdt_library.h. */
#define _GNU_SOURCE
#include "pdt_library.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pdt_library_add_dir(pdt_library *lib, const char *dir)
{
    pthread_mutex_lock(&lib->lock);
    if (lib->state == 0 && lib->ndirs < PDT_LIBRARY_MAX_DIRS &&
        strlen(dir) + strlen(lib->soname) + 2 < sizeof lib->dirs[0]) {
        int seen = 0;
        for (int i = 0; i < lib->ndirs && !seen; i++)
            seen = strcmp(lib->dirs[i], dir) == 0;
        if (!seen)
            snprintf(lib->dirs[lib->ndirs++], sizeof lib->dirs[0], "%s", dir);
    }
    pthread_mutex_unlock(&lib->lock);
}

/* Appends printf-style text to buf[n] (truncating). */
static void append(char *buf, size_t n, const char *fmt, const char *a, const char *b)
{
    size_t used = strlen(buf);
    if (used + 1 < n)
        snprintf(buf + used, n - used, fmt, a, b);
}

/* The directory of the extension module this code is linked into, in dir[n]; 0 on success. */
static int own_directory(char *dir, size_t n)
{
    Dl_info self;
    if (!dladdr((const void *)(uintptr_t)&pdt_library_load, &self) || !self.dli_fname)
        return -1;
    const char *slash = strrchr(self.dli_fname, '/');
    int len = slash ? snprintf(dir, n, "%.*s", (int)(slash - self.dli_fname), self.dli_fname)
                    : snprintf(dir, n, ".");
    return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* Opens `target` and resolves every symbol; 0 and the handle in *out, or -1 with the
 * reason appended to tried. */
static int try_open(pdt_library *lib, const char *target, void **out, char *tried, size_t n)
{
    void *h = dlopen(target, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror(); /* names the file already */
        append(tried, n, "; %s%s", why ? why : target, why ? "" : ": not loadable");
        /* out of address space, not a bad file: worth another try later */
        if (why && (strstr(why, "Cannot allocate memory") || strstr(why, "failed to map")))
            lib->short_of_memory = 1;
        return -1;
    }
    for (size_t i = 0; i < lib->nsymbols; i++) {
        if (!dlsym(h, lib->symbols[i].name)) {
            append(tried, n, "; %s: lacks the symbol %s", target, lib->symbols[i].name);
            dlclose(h);
            return -1;
        }
    }
    char why[256] = "";
    if (lib->check && lib->check(h, why, sizeof why) != 0) {
        append(tried, n, "; %s: %s", target, why);
        dlclose(h);
        return -1;
    }
    *out = h;
    return 0;
}

/* Tries every place (Note [where libraries are found]); returns 1 when loaded, -1 with
 * lib->error set when not. */
static int load_tried(pdt_library *lib)
{
    char tried[1024] = "";  /* why files that exist did not load */
    char places[1024] = ""; /* every place looked in */
    char candidate[PDT_LIBRARY_PATH_MAX + 64] = "";
    void *h = NULL;
    lib->short_of_memory = 0;
    for (int i = 0; !h && i < lib->ndirs; i++) {
        append(places, sizeof places, "%s%s", places[0] ? ", " : "", lib->dirs[i]);
        snprintf(candidate, sizeof candidate, "%s/%s", lib->dirs[i], lib->soname);
        if (access(candidate, F_OK) == 0) /* absent: named in places only */
            try_open(lib, candidate, &h, tried, sizeof tried);
    }
    char own[PDT_LIBRARY_PATH_MAX];
    if (!h && lib->local_dir) {
        if (own_directory(own, sizeof own) != 0) {
            append(tried, sizeof tried, "; %s%s", "the extension module's directory is unknown",
                   "");
        } else {
            snprintf(candidate, sizeof candidate, "%s/%s", own, lib->local_dir);
            append(places, sizeof places, "%s%s", places[0] ? ", " : "", candidate);
            snprintf(candidate, sizeof candidate, "%s/%s/%s", own, lib->local_dir, lib->soname);
            try_open(lib, candidate, &h, tried, sizeof tried);
        }
    }
    if (!h && !lib->no_system) {
        append(places, sizeof places, "%s%s", places[0] ? ", " : "",
               "the system loader's path (RUNPATH, LD_LIBRARY_PATH, ldconfig)");
        snprintf(candidate, sizeof candidate, "%s", lib->soname);
        try_open(lib, candidate, &h, tried, sizeof tried);
    }
    if (!h) {
        snprintf(lib->error, sizeof lib->error,
                 "%s could not be loaded: no usable %s in %.900s%s%.900s%s. Install it with: %s",
                 lib->what, lib->soname, places[0] ? places : "(nowhere to look)",
                 tried[0] ? " (" : "", tried[0] ? tried + 2 : "", tried[0] ? ")" : "",
                 lib->install);
        return lib->short_of_memory ? 0 : -1;
    }
    for (size_t i = 0; i < lib->nsymbols; i++)
        *lib->symbols[i].slot = dlsym(h, lib->symbols[i].name);
    Dl_info info;
    if (lib->nsymbols && dladdr(*lib->symbols[0].slot, &info) && info.dli_fname)
        snprintf(lib->path, sizeof lib->path, "%s", info.dli_fname);
    else
        snprintf(lib->path, sizeof lib->path, "%.1000s", candidate);
    return 1;
}

/* Sets lib->load_env for the library's constructors.  Returns the value it set
 * (the caller unsets name after, if it still has that value), or NULL when there is
 * none or the process has the variable set. */
static const char *set_load_env(const pdt_library *lib, char *name, size_t n)
{
    const char *eq = lib->load_env ? strchr(lib->load_env, '=') : NULL;
    if (!eq || (size_t)(eq - lib->load_env) >= n)
        return NULL;
    snprintf(name, n, "%.*s", (int)(eq - lib->load_env), lib->load_env);
    return !getenv(name) && setenv(name, eq + 1, 0) == 0 ? eq + 1 : NULL;
}

/* load_tried with lib->load_env set meanwhile. */
static int load_locked(pdt_library *lib)
{
    char name[64];
    const char *value = set_load_env(lib, name, sizeof name);
    int loaded = load_tried(lib);
    const char *now = value ? getenv(name) : NULL;
    if (now && strcmp(now, value) == 0) /* not if set meanwhile */
        unsetenv(name);
    return loaded;
}

int pdt_library_load(pdt_library *lib)
{
    int state = __atomic_load_n(&lib->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&lib->lock);
        state = lib->state;
        if (state == 0) {
            state = load_locked(lib);
            __atomic_store_n(&lib->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&lib->lock);
    }
    if (state == 0) /* short of memory: not final, and a retry rewrites lib->error */
        return -2;
    return state == 1 ? 0 : -1;
}

int pdt_library_report(pdt_library *lib, char *path, size_t npath, char *error, size_t nerror)
{
    int loaded = pdt_library_load(lib);
    pthread_mutex_lock(&lib->lock); /* path and error are final once state is; error is
                                       not after a -2 */
    snprintf(path, npath, "%s", loaded == 0 ? lib->path : "");
    snprintf(error, nerror, "%s", loaded == 0 ? "" : lib->error);
    pthread_mutex_unlock(&lib->lock);
    return loaded;
}

pdt_status pdt_library_need(pdt_library *lib)
{
    if (pdt_library_load(lib) == 0)
        return PDT_OK;
    char why[sizeof lib->error];
    int loaded = pdt_library_report(lib, NULL, 0, why, sizeof why);
    return loaded == 0 ? PDT_OK : pdt_fail(loaded == -2 ? PDT_ERR_OOM : PDT_ERR_BACKEND, "%s", why);
}
