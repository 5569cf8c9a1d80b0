#pragma once
#include <stdint.h>
/// Number of malloc-family calls made by the calling thread while counting is on.
void tutti_malloc_counter_start(void);
uint64_t tutti_malloc_counter_stop(void);
