/* The SimGrid adapter of the maestro engine (sim/engine-s4u.h): the only C++
 * of tracesim, in SimGrid's s4u style. Everything here runs in maestro, from
 * three SimGrid hooks (doc/plans/maestro-engine-map.md 2.14 and 3.5):
 *
 * - Engine::on_time_advance, fired in EngineImpl::solve() right after the
 *   models updated their actions, at every step of the clock. There, bursts
 *   within surf/precision of the new date end, as a sleep's CPU action ends
 *   in CpuModel::update_actions_state_lazy (double_equals), even at a step
 *   where nothing of ours ends (a transfer's latency phase, another actor's
 *   event). Each burst also has a kernel timer at its own date, only so that
 *   solve() stops there; it is removed when the burst ends.
 * - Activity::on_completion, fired by handle_ended_actions() for the
 *   executions and transfers started here (their actor is maestro).
 * - one flush timer at the current date, where settled() is called.
 *
 * EngineImpl::run() does, per step: solve(); then do { again =
 * Timer::execute_all(); handle_ended_actions(); } while (again). The flush
 * timer thus runs before the step's completions are delivered. So the flush
 * first looks in every model's finished and failed sets: if one of our
 * activities is there, it returns, and that activity's completion (in the
 * handle_ended_actions() that follows) arms it again; the loop then turns
 * once more, because a timer ran, and the flush finds the instant complete.
 *
 * SimGrid's signals are process-wide and cannot be disconnected in 3.32
 * (on_completion_cb returns no id): they are connected once per process and
 * report to `live`, the one adapter of this process (SimGrid allows one
 * engine per process). These two statics are the only mutable globals. */
#include <config.h>

#include "sim/engine-s4u.h"

#include <simgrid/Exception.hpp>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include <cmath>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sg4 = simgrid::s4u;
using simgrid::kernel::timer::Timer;

namespace {
/* An execution or a transfer in flight; its activity's data. */
struct Flight {
  sg4::ActivityPtr activity;
  gpointer cookie;
};
/* A burst not ended yet, by (date, seq); nullptr: no kernel timer. */
struct Burst {
  gpointer cookie;
  Timer* timer;
};
} // namespace

struct TsS4u {
  TsS4uCallbacks cb;
  double precision;
  guint64 seq = 0;
  std::map<std::pair<double, guint64>, Burst> bursts;
  /* By kernel activity, which is what a model's action knows. Elements do
   * not move, so a Flight's address can be an activity's data. */
  std::unordered_map<const void*, Flight> flying;
  /* Ended activities, kept until the flush: SimGrid posts an activity after
   * its completion signal, so the signal must not drop the last reference. */
  std::vector<sg4::ActivityPtr> graveyard;
  Timer* flush  = nullptr; // armed at the current date, until it runs
  bool settle   = false;   // settled() is asked for
  bool failed   = false;   // nothing is reported any more
  GError* error = nullptr; // the first failure, until run() returns it
};

static TsS4u* live;

static GQuark s4u_error_quark()
{
  return g_quark_from_static_string("tracesim-s4u-error-quark");
}

static void forget_bursts(TsS4u* e)
{
  for (auto const& [key, burst] : e->bursts)
    if (burst.timer != nullptr)
      burst.timer->remove();
  e->bursts.clear();
}

/* Keep the first failure, and stop telling the C side anything: what is in
 * flight drains silently, bursts are forgotten, and run() returns it. */
static void fail(TsS4u* e, const char* what)
{
  if (not e->failed)
    g_set_error(&e->error, s4u_error_quark(), 0, "SimGrid engine: %s", what);
  e->failed = true;
  e->settle = false;
  forget_bursts(e);
}

/* Runs @f; an exception (SimGrid's or the C++ library's) becomes the
 * adapter's failure instead of crossing into C. */
template <class F> static void guarded(TsS4u* e, F&& f)
{
  try {
    f();
  } catch (const simgrid::Exception& ex) {
    fail(e, ex.what());
  } catch (const std::exception& ex) {
    fail(e, ex.what());
  }
}

static void flush(TsS4u* e);

static void settle_soon(TsS4u* e)
{
  e->settle = true;
  if (e->flush == nullptr)
    e->flush = Timer::set(sg4::Engine::get_clock(), [e] { flush(e); });
}

/* End every burst within surf/precision of now, in (date, seq) order;
 * whether any ended. */
static bool release_due(TsS4u* e)
{
  double now = sg4::Engine::get_clock();
  bool any   = false;
  while (not e->bursts.empty() && std::fabs(e->bursts.begin()->first.first - now) < e->precision) {
    Burst burst = e->bursts.begin()->second;
    e->bursts.erase(e->bursts.begin());
    if (burst.timer != nullptr)
      burst.timer->remove();
    e->cb.completed(e->cb.data, burst.cookie, FALSE);
    any = true;
  }
  return any;
}

/* Whether a model holds an ended action of ours that handle_ended_actions()
 * has not delivered yet. */
static bool ours_pending(const TsS4u* e)
{
  if (e->flying.empty())
    return false;
  for (auto* model : sg4::Engine::get_instance()->get_all_models())
    for (auto* set : {model->get_failed_action_set(), model->get_finished_action_set()})
      for (auto const& action : *set)
        if (e->flying.count(action.get_activity()) != 0)
          return true;
  return false;
}

static void flush(TsS4u* e)
{
  e->flush = nullptr; // execute_all() deletes this timer when we return
  guarded(e, [e] {
    e->graveyard.clear(); // all posted: a post follows its signal at once
    if (e->failed || not e->settle || ours_pending(e))
      return;
    release_due(e); // a 0-second burst started in this instant
    e->settle = false;
    e->cb.settled(e->cb.data);
  });
}

static void on_time_advance(double)
{
  if (TsS4u* e = live; e != nullptr && not e->failed)
    guarded(e, [e] {
      if (release_due(e))
        settle_soon(e);
    });
}

static void on_completion(sg4::Activity const& a)
{
  auto* flight = a.get_data<Flight>();
  TsS4u* e     = live;
  if (flight == nullptr || e == nullptr) // not ours
    return;
  guarded(e, [e, flight, &a] {
    gpointer cookie = flight->cookie;
    e->graveyard.push_back(std::move(flight->activity));
    e->graveyard.back()->set_data(nullptr);
    e->flying.erase(a.get_impl());
    if (e->failed)
      return;
    release_due(e); // this instant's bursts first
    e->cb.completed(e->cb.data, cookie, a.get_state() != sg4::Activity::State::FINISHED);
    settle_soon(e);
  });
}

/* Forget what is in flight (a run cut short): cancelled with no data, our
 * completion callback ignores it, and no s4u object dies still running. */
static void abandon(TsS4u* e)
{
  e->graveyard.clear();
  for (auto& [impl, flight] : e->flying) {
    flight.activity->set_data(nullptr);
    try {
      flight.activity->cancel();
    } catch (const std::exception&) {
      /* it ended meanwhile: nothing to cancel */
    }
  }
  e->flying.clear();
}

/* An execution or a transfer, started and known as ours. */
static void launch(TsS4u* e, sg4::ActivityPtr activity, gpointer cookie)
{
  auto it = e->flying.try_emplace(activity->get_impl(), Flight{activity, cookie}).first;
  activity->set_data(&it->second);
  try {
    activity->start();
  } catch (...) {
    activity->set_data(nullptr);
    e->flying.erase(it);
    throw;
  }
}

TsS4u* ts_s4u_new(const TsS4uCallbacks* callbacks)
{
  g_return_val_if_fail(live == nullptr, nullptr); // one engine per process
  static std::once_flag connected;
  std::call_once(connected, [] {
    sg4::Activity::on_completion_cb(on_completion);
    sg4::Engine::on_time_advance_cb(on_time_advance);
  });
  auto* e = new TsS4u();
  e->cb   = *callbacks;
  guarded(e, [e] { e->precision = simgrid::config::get_value<double>("surf/precision"); });
  live = e;
  return e;
}

void ts_s4u_free(TsS4u* e)
{
  if (e == nullptr)
    return;
  forget_bursts(e);
  if (e->flush != nullptr)
    e->flush->remove();
  abandon(e);
  g_clear_error(&e->error);
  if (live == e)
    live = nullptr;
  delete e;
}

double ts_s4u_now(TsS4u*)
{
  return sg4::Engine::get_clock();
}

void ts_s4u_burst(TsS4u* e, double seconds, gpointer cookie)
{
  if (e->failed)
    return;
  if (not(std::isfinite(seconds) && seconds >= 0)) {
    g_autofree char* what = g_strdup_printf("a burst of %g s (a duration must be finite and not negative)", seconds);
    fail(e, what);
    return;
  }
  guarded(e, [e, seconds, cookie] {
    /* CpuCas01::sleep floors a sleep at surf/precision; a 0-second sleep is
     * a no-op (this_actor::sleep_for): it ends now, at the next flush. */
    double now  = sg4::Engine::get_clock();
    double date = seconds > 0 ? now + std::max(seconds, e->precision) : now;
    std::pair<double, guint64> key{date, e->seq++};
    Timer* timer = nullptr;
    if (date > now)
      timer = Timer::set(date, [e, key] {
        /* Not expected: on_time_advance ends a burst at the step that
         * reaches its date, and removes its timer. */
        auto it = e->bursts.find(key);
        if (it != e->bursts.end())
          it->second.timer = nullptr; // execute_all() deletes it
        guarded(e, [e] {
          if (release_due(e))
            settle_soon(e);
        });
      });
    e->bursts.emplace(key, Burst{cookie, timer});
    if (date <= now)
      settle_soon(e);
  });
}

void ts_s4u_exec(TsS4u* e, sg_host_t host, double flops, gpointer cookie)
{
  if (e->failed)
    return;
  if (host == nullptr || not(std::isfinite(flops) && flops >= 0)) {
    g_autofree char* what = g_strdup_printf("an execution of %g flops on %s", flops,
                                            host != nullptr ? host->get_cname() : "no host");
    fail(e, what);
    return;
  }
  guarded(e, [e, host, flops, cookie] {
    sg4::ExecPtr exec = sg4::Exec::init();
    exec->set_host(host)->set_flops_amount(flops);
    launch(e, exec, cookie);
  });
}

/* Flops of a poll: far beyond any replay (1e9 s on a 1 Gflop/s core), and
 * finite, which SimGrid's solver needs. */
constexpr double POLL_FLOPS = 1e18;

gpointer ts_s4u_poll(TsS4u* e, sg_host_t host, double bound)
{
  if (e->failed || host == nullptr)
    return nullptr;
  auto* poll = new sg4::ExecPtr();
  guarded(e, [host, poll, bound] {
    *poll = sg4::Exec::init();
    (*poll)->set_host(host)->set_flops_amount(POLL_FLOPS);
    if (bound > 0)
      (*poll)->set_bound(bound);
    (*poll)->start();
  });
  return poll;
}

void ts_s4u_unpoll(TsS4u* e, gpointer handle)
{
  auto* poll = static_cast<sg4::ExecPtr*>(handle);
  if (poll == nullptr)
    return;
  if (*poll != nullptr)
    guarded(e, [e, poll] {
      (*poll)->cancel();
      e->graveyard.push_back(std::move(*poll)); // as an ended activity: dropped at the flush
    });
  delete poll;
}

void ts_s4u_transfer(TsS4u* e, sg_host_t src, sg_host_t dst, double bytes, gpointer cookie)
{
  if (e->failed)
    return;
  if (src == nullptr || dst == nullptr || not(std::isfinite(bytes) && bytes >= 0)) {
    g_autofree char* what = g_strdup_printf("a transfer of %g bytes from %s to %s", bytes,
                                            src != nullptr ? src->get_cname() : "no host",
                                            dst != nullptr ? dst->get_cname() : "no host");
    fail(e, what);
    return;
  }
  guarded(e, [e, src, dst, bytes, cookie] {
    sg4::CommPtr comm = sg4::Comm::sendto_init(src, dst);
    comm->set_payload_size(static_cast<uint64_t>(bytes));
    launch(e, comm, cookie);
  });
}

void ts_s4u_settle_soon(TsS4u* e)
{
  if (not e->failed)
    guarded(e, [e] { settle_soon(e); });
}

gboolean ts_s4u_run(TsS4u* e, GError** error)
{
  if (not e->failed)
    guarded(e, [] { sg4::Engine::get_instance()->run(); });
  /* SimGrid's static destructors run at exit(): drop our references now. */
  abandon(e);
  if (not e->failed)
    return TRUE;
  if (e->error != nullptr)
    g_propagate_error(error, std::exchange(e->error, nullptr));
  else
    g_set_error(error, s4u_error_quark(), 0, "SimGrid engine: an earlier run failed");
  return FALSE;
}
