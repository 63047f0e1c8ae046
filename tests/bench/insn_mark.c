// SPDX-License-Identifier: GPL-2.0-only
/* The marker tests/bench/insn_plugin.c watches for: one "xchg %bx,%bx". */
int main(void)
{
	__asm__ volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
	return 0;
}
