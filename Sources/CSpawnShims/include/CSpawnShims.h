// glibc's posix_spawn file actions that Swift's Glibc module does not import (they are
// declared only for _GNU_SOURCE / __USE_MISC).
#ifndef CSPAWNSHIMS_H
#define CSPAWNSHIMS_H
#include <spawn.h>
/// posix_spawn_file_actions_addchdir_np: the child changes to `path` before it runs the program.
int cashier_spawn_addchdir(posix_spawn_file_actions_t *actions, const char *path);
/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor from `from` up.
int cashier_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);
#endif
