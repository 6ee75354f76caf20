#ifndef CSDL_CHECKSUM_H
#define CSDL_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU carries out carry-less multiplication (x86-64 PCLMULQDQ with SSE4.1),
/// so sdl_crc32_folded may be called.
int sdl_crc32_folding_available(void);

/// Continues the CRC-32 (IEEE, reflected, as zlib's crc32) `crc` over `count` bytes by
/// folding 64 bytes at a time with carry-less multiplication. `count` must be at least 64
/// and a multiple of 16; the caller finishes any tail with zlib.
uint32_t sdl_crc32_folded(uint32_t crc, const uint8_t *bytes, size_t count);

#endif
