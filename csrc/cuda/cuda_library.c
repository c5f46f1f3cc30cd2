/* cuda_library.c - see cuda_library.h. */
#define _GNU_SOURCE
#include "cuda_library.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void *pdt_cuda_open_library(const char *soname, const char *what, char *err, size_t n)
{
    const char *target = soname;
#ifdef PDT_CUDA_EMULATED
    char path[4096];
    Dl_info self;
    if (!dladdr((const void *)(uintptr_t)&pdt_cuda_open_library, &self) || !self.dli_fname) {
        snprintf(err, n, "%s could not be loaded: the extension module's path is unknown", what);
        return NULL;
    }
    const char *slash = strrchr(self.dli_fname, '/');
    int len = slash ? snprintf(path, sizeof path, "%.*s/_emulated_cuda/%s",
                               (int)(slash - self.dli_fname), self.dli_fname, soname)
                    : snprintf(path, sizeof path, "./_emulated_cuda/%s", soname);
    if (len < 0 || (size_t)len >= sizeof path) {
        snprintf(err, n, "%s could not be loaded: the emulated library's path is too long", what);
        return NULL;
    }
    target = path;
#endif
    void *lib = dlopen(target, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(err, n, "%s could not be loaded: %.640s", what, why ? why : target);
    }
    return lib;
}
