// Kernels with one deliberate fault each, for the oclgrind-canary-* tests
// (tests/reliability/oclgrind_canary.cpp, tests/cmake/oclgrind_check.cmake): each test passes only when
// Oclgrind reports its kernel's fault, which shows that the checks the oclgrind tests rely on are enabled and
// that their reports are caught. Every kernel runs as 2 work-groups of 4 work-items over `data`, a buffer of
// 8 ints that the host has written in full; `words` is a second buffer of 8 ints.

// One element past the end of the buffer.
kernel void out_of_bounds(global int* data) {
  const size_t i = get_global_id(0);
  data[i + 1] = (int)i;
}

// An int stored 2 bytes into an int: the form of report ("... not aligned to the pointed type") that
// the old output expression missed.
kernel void misaligned_store(global int* data) {
  if (get_global_id(0) == 0) *(global int*)((global char*)data + 2) = 1;
}

// An atomic on an address that is not a multiple of 4 ("Unaligned address on atomic_add").
kernel void misaligned_atomic(global int* data) {
  if (get_global_id(0) == 0) atomic_add((volatile global int*)((global char*)data + 2), 1);
}

// Work-items of different work-groups write different values to one word: a write-write race.
kernel void global_race(global int* data) { data[0] = (int)get_global_id(0); }

// Each work-item reads its neighbour's local word with no barrier in between: a read-write race.
kernel void local_race(global int* data) {
  local int shared[4];
  const size_t lid = get_local_id(0);
  shared[lid] = (int)lid;
  data[get_global_id(0)] = shared[(lid + 1) % 4];
}

// Every work-item writes the same value to one word: reported only with --uniform-writes, so this
// canary shows that the option is in effect.
kernel void uniform_write(global int* data) { data[0] = 7; }

// Local memory that nothing wrote, copied to global memory. The write the compiler cannot rule out
// keeps it from folding the read into a constant, which Oclgrind would not see.
kernel void uninitialized(global int* data) {
  local int never_written[4];
  if (get_local_id(0) == 9) never_written[0] = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  data[get_global_id(0)] = never_written[get_local_id(0)];
}

// A barrier that only some work-items of a work-group reach.
kernel void divergent_barrier(global int* data) {
  if (get_local_id(0) < 2) barrier(CLK_LOCAL_MEM_FENCE);
  data[get_global_id(0)] = 1;
}

// Correct; the host misuses the API around it (a kernel argument of the wrong size), which
// --check-api reports.
kernel void api_misuse(global int* data, global int* words) {
  data[get_global_id(0)] = words[get_global_id(0)];
}

// No fault: the control, which must leave the log empty (tests/cmake/oclgrind_check.cmake).
kernel void clean(global int* data, global int* words) {
  const size_t i = get_global_id(0);
  data[i] = words[i] + 1;
}
