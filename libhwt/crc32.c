// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), the same value as
 * zlib's crc32(): it guards the .hwt header and blocks.  A byte-wise table
 * runs at several hundred MB/s, well above any recording rate.
 */
#include <pthread.h>

#include "internal.h"

static uint32_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
}

uint32_t hwt_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&table_once, table_init);
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return ~crc;
}
