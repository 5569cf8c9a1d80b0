// Interposes the malloc family in the test executable and counts calls made by
// the calling thread while counting is on. Forwards to glibc's own entry points.
#include "MallocCounter.h"
#include <stddef.h>
#include <errno.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static __thread int counting;
static __thread uint64_t count;

void tutti_malloc_counter_start(void) { count = 0; counting = 1; }
uint64_t tutti_malloc_counter_stop(void) { counting = 0; return count; }

// Under TSan/ASan the sanitizer owns malloc and calls it before it is ready for us:
// no interposing there (counting is then off, and the zero-malloc tests are not run).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define TUTTI_SANITIZED 1
#endif
#endif

#ifndef TUTTI_SANITIZED
void *malloc(size_t n) { if (counting) count++; return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { if (counting) count++; return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { if (counting) count++; return __libc_realloc(p, n); }
void free(void *p) { if (counting && p) count++; __libc_free(p); }
void *memalign(size_t a, size_t n) { if (counting) count++; return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { if (counting) count++; return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    if (counting) count++;
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
#endif
