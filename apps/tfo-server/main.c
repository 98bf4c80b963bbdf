/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder: being written. */
int main(void) { return 0; }
