/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder: implemented by its issue. */
