/* pdt_glibc_compat.h - forced into every C file of a release build (setup.py,
 * Note [wheels]): binds the few glibc functions whose default symbol version moved to
 * GLIBC_2.34 (when libdl and libpthread were merged into libc) to their original
 * x86_64 versions, which every glibc since 2.2.5 still provides.  Python's own
 * extension modules built on old manylinux images call exactly these, so the behaviour
 * is the same; what changes is that a wheel built on this machine's glibc 2.36 needs
 * glibc 2.17 rather than 2.34 (auditwheel: manylinux_2_17 instead of manylinux_2_34).
 * Not for sanitizer builds, whose runtime intercepts the default versions. */
#ifndef PDT_GLIBC_COMPAT_H
#define PDT_GLIBC_COMPAT_H

/* No header here: it comes before each file's own _GNU_SOURCE.  setup.py forces it
 * only on glibc x86_64, which the check below repeats as far as it can. */
#if defined(__linux__) && defined(__x86_64__)
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlclose,dlclose@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");
__asm__(".symver dladdr,dladdr@GLIBC_2.2.5");
__asm__(".symver pthread_create,pthread_create@GLIBC_2.2.5");
__asm__(".symver pthread_once,pthread_once@GLIBC_2.2.5");
__asm__(".symver pthread_mutex_trylock,pthread_mutex_trylock@GLIBC_2.2.5");
__asm__(".symver pthread_join,pthread_join@GLIBC_2.2.5");
#endif

#endif /* PDT_GLIBC_COMPAT_H */
