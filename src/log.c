/* SPDX-License-Identifier: BSD-3-Clause */
#include "tfo/log.h"

RTE_LOG_REGISTER(tfo_logtype, user.tfo, INFO);
