// The core layer in one include: loop, tasks, spawning, time, waiting, queues and locks.
#pragma once

#include "squall/core/error.h"
#include "squall/core/log.h"
#include "squall/core/loop.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/core/timeout.h"
