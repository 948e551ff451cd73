//===- AMXTileState.cpp - request the AMX tile state on load --------------===//
//
// Linux kills a process that executes AMX instructions before it asked for
// the tile data state (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA).
// Loading this library asks, once, from its constructor; the returned
// status is kept for a host that wants to check it.
//
//===----------------------------------------------------------------------===//
#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

extern "C" {
/// 0 when the tile state was granted, -1 otherwise.
__attribute__((visibility("default"))) int mpt_amx_tile_state = -1;
}

__attribute__((constructor)) static void requestAMXTileState() {
#if defined(__linux__) && defined(__x86_64__)
  constexpr long archReqXcompPerm = 0x1023, xfeatureXtiledata = 18;
  mpt_amx_tile_state =
      syscall(SYS_arch_prctl, archReqXcompPerm, xfeatureXtiledata) == 0 ? 0
                                                                       : -1;
#endif
}
