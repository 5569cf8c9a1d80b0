#pragma once
#include <spawn.h>
/// Close every descriptor from `lowest` on in the spawned child (glibc 2.34+;
/// `posix_spawn_file_actions_addclosefrom_np`, not visible to Swift without _GNU_SOURCE).
int tutti_spawn_actions_close_from(posix_spawn_file_actions_t *actions, int lowest);
