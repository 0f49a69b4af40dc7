// An experiment for issue 23, not part of tracesim (which is C11 on SimGrid's
// C API): the workload of bench/simgrid-floor.c driven from maestro, with no
// actor at all. Each rank is a small state machine advanced from SimGrid's
// activity-completion signal, which only the C++ API (s4u::Activity) offers
// in SimGrid 3.32. Messages are matched here, per channel and in order, and
// each matched pair starts a host-to-host transfer (Comm::sendto_async): a
// transfer starts when both its send and its receive are posted, as
// SimGrid's mailboxes start a detached send's.
//
// Compute bursts are kernel timers (one rank per one-core host), so no
// activity stands for them. Besides the context switch and the simcall per
// action, this design saves what the actor version's SimGrid calls cost
// inside: a sleep is a CPU action there, a mailbox match builds two
// communications and keeps one, and an unmatched detached send waits in
// maestro's list of activities; here it is a counter.
//
// It makes the actor floor's sleeps, posts and waits in the same order
// (bench/simgrid-floor.c), and prints the same simulated time.
//
// Built by hand; bench/vs-smpireplay.sh times it beside bench/ts-simgrid-floor:
//   g++ -O2 -std=c++17 -o maestro-floor bench/maestro-floor.cpp -lsimgrid -ltcmalloc_minimal
//   MAESTRO=$PWD/maestro-floor sh bench/vs-smpireplay.sh
// It prints the simulated time, to compare with the actor version's.
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <unordered_map>
#include <vector>

namespace sg4 = simgrid::s4u;

struct Rank;
struct Recv {
  Rank* owner;
  bool done = false;
};
// The transfer that completes a receive.
struct Tag {
  Recv* recv;
  sg4::ActivityPtr self; // keeps the activity alive until it completes
};

struct Rank {
  int id, ranks, iterations, steps;
  sg4::Host* host;
  int iteration = 0, pc = 0, step = 0;
  Recv recv;
  Recv* waiting = nullptr;
};

struct Queues {
  std::deque<Recv*> recvs;  // posted receives no send has matched
  int sends = 0;            // posted sends no receive has matched
};
static std::unordered_map<long, Queues> channels; // by channel()

static long channel(int src, int dst, int tag)
{
  return ((long)src * (1L << 24) + dst) * 2 + (tag < 0);
}
static std::vector<Rank> all;
static std::vector<sg4::ActivityPtr> graveyard; // completed; freed by the next completion

static void transfer(int src, int dst, long bytes, Recv* r)
{
  sg4::CommPtr c = sg4::Comm::sendto_init(all[src].host, all[dst].host);
  c->set_payload_size(bytes);
  c->set_data(new Tag{r, c});
  c->start();
}

static void post_send(int src, int dst, int tag, long bytes)
{
  Queues& q = channels[channel(src, dst, tag)];
  if (q.recvs.empty()) {
    q.sends++;
    return;
  }
  Recv* r = q.recvs.front();
  q.recvs.pop_front();
  transfer(src, dst, bytes, r);
}

static void post_recv(int src, int dst, int tag, long bytes, Recv* r)
{
  r->done = false;
  Queues& q = channels[channel(src, dst, tag)];
  if (q.sends == 0) {
    q.recvs.push_back(r);
    return;
  }
  q.sends--;
  transfer(src, dst, bytes, r);
}

static void advance(Rank* rk);

// A burst on a core of its own takes a fixed time: a kernel timer. (An
// actor's sleep is a CPU action in SimGrid 3.32, with a variable in the LMM
// system, as an execution is: a maestro design saves that too.)
static void burst(Rank* rk, double seconds)
{
  simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock() + seconds, [rk]() { advance(rk); });
}

// Runs rank rk until it blocks: on a burst, or on a receive not yet done.
static void advance(Rank* rk)
{
  int left = (rk->id + rk->ranks - 1) % rk->ranks, right = (rk->id + 1) % rk->ranks;
  bool power_of_two = (1 << rk->steps) == rk->ranks;
  for (;;) {
    if (rk->waiting) {
      if (not rk->waiting->done)
        return;
      rk->waiting = nullptr;
    }
    switch (rk->pc++) {
      case 0:
        if (rk->iteration == rk->iterations) {
          rk->pc = 6;
          burst(rk, 1e-6); // the actor floor's last sleep
          return;
        }
        burst(rk, 1.001e-3);
        return;
      case 1:
        post_recv(left, rk->id, 0, 4096, &rk->recv);
        burst(rk, 1e-6);
        return;
      case 2:
        post_send(rk->id, right, 0, 4096);
        rk->waiting = &rk->recv;
        break;
      case 3:
        if (rk->iteration % 10 == 9 && power_of_two) {
          burst(rk, 1e-6); // the sleep before the allreduce
          return;
        }
        rk->pc = 5;
        break;
      case 4:
        if (rk->step < rk->steps) {
          int peer = rk->id ^ (1 << rk->step++);
          post_send(rk->id, peer, -1, 8);
          post_recv(peer, rk->id, -1, 8, &rk->recv);
          rk->waiting = &rk->recv;
          rk->pc = 4; // the next step
        }
        break;
      case 5:
        rk->step = 0;
        rk->pc   = 0;
        rk->iteration++;
        break;
      default:
        return; // done
    }
  }
}

static void completed(sg4::Activity const& a)
{
  auto* tag = static_cast<Tag*>(a.get_data<void>());
  if (tag == nullptr)
    return;
  // The completing activity is freed at the next completion, not inside its
  // own signal.
  std::vector<sg4::ActivityPtr> old;
  old.swap(graveyard);
  graveyard.push_back(std::move(tag->self));
  tag->recv->done = true;
  Rank* rk = tag->recv->owner;
  delete tag;
  if (rk->waiting == &rk->recv)
    advance(rk);
}

int main(int argc, char** argv)
{
  sg4::Engine e(&argc, argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PLATFORM RANKS ITERATIONS\n", argv[0]);
    return 2;
  }
  e.load_platform(argv[1]);
  int ranks = std::atoi(argv[2]), iterations = std::atoi(argv[3]);
  int steps = 0;
  while ((1 << steps) < ranks)
    steps++;
  all.resize(ranks);
  for (int i = 0; i < ranks; i++) {
    Rank& rk      = all[i];
    rk.id         = i;
    rk.ranks      = ranks;
    rk.iterations = iterations;
    rk.steps      = steps;
    rk.host       = sg4::Host::by_name("node-" + std::to_string(i));
    rk.recv.owner = &rk;
  }
  sg4::Activity::on_completion_cb(completed);
  for (auto& rk : all)
    advance(&rk);
  e.run();
  std::printf("simulated time %.9f s\n", sg4::Engine::get_clock());
  graveyard.clear(); // before the engine is gone
  return 0;
}
