//! Which packet a full queue drops: the victim rule, shared by DropTail and RED.
//!
//! The rule looks at the buffer with the arrival already in it (at the tail) and
//! returns the index of the packet to drop, so "drop the arrival" is just the tail.
//! Early (probabilistic) drops of RED are not governed by it: they always take the
//! arrival, colour-blind (spec thesis-faststart-asymmetry A.8).

use super::ring::Ring;
use crate::config::{RedConfig, VictimRule};
use crate::error::ConfigError;
use crate::net::packet::PacketPool;
use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Victim {
    /// The arrival (tail drop).
    Tail,
    /// The front of the queue. ns-2 differs by discipline and we keep both: DropTail's
    /// `drop_front_` drops the head (drop-tail.cc `enque`: `q_->enque(p); drop(q_->deque())`),
    /// RED's drops index min(1, len-1), the second waiting packet (red.cc
    /// `pickPacketToDrop`); the discipline passes its `front` index to [`Victim::pick`].
    Front,
    /// A uniformly random packet of the queue, arrival included (ns-2.35 red.cc
    /// `pickPacketToDrop` with `drop_rand_`: `int(uniform() * len)`), one draw.
    Random,
    /// The low-priority packet nearest the tail, arrival included; the arrival if
    /// none is low priority (thesis §8.4, spec A.8; ns-2.35 `PacketQueue/Semantic`
    /// with `priority_drop_`: the last marked packet).
    LowPriorityFirst,
}

impl Victim {
    pub fn from_rule(r: VictimRule) -> Victim {
        match r {
            VictimRule::Tail => Victim::Tail,
            VictimRule::Front => Victim::Front,
            VictimRule::Random => Victim::Random,
            VictimRule::LowPriorityFirst => Victim::LowPriorityFirst,
        }
    }

    /// RED's rule: ns-2's `drop_front_` / `drop_rand_` (front wins, as in red.cc), or
    /// `victim`; giving `victim` together with either ns-2 flag is an error.
    pub fn from_red_config(field: &str, cfg: &RedConfig) -> Result<Victim, ConfigError> {
        match cfg.victim {
            Some(v) if cfg.drop_front || cfg.drop_rand => Err(ConfigError::new(
                format!("{field}.victim"),
                v.as_str(),
                "conflicts with drop_front / drop_rand: give the victim rule one way",
            )),
            Some(v) => Ok(Victim::from_rule(v)),
            None if cfg.drop_front => Ok(Victim::Front),
            None if cfg.drop_rand => Ok(Victim::Random),
            None => Ok(Victim::Tail),
        }
    }

    /// Index in `q` (which holds the arrival at its tail, so `q` is not empty) of the
    /// packet to drop. `front` is the discipline's front index (see [`Victim::Front`]).
    #[inline]
    pub fn pick(self, q: &Ring, pool: &PacketPool, rng: &mut Rng, front: usize) -> usize {
        let len = q.len();
        debug_assert!(len > 0);
        match self {
            Victim::Tail => len - 1,
            Victim::Front => front.min(len - 1),
            Victim::Random => ((rng.uniform() * len as f64) as usize).min(len - 1),
            Victim::LowPriorityFirst => q.iter().rposition(|x| pool.get(x).low_prio).unwrap_or(len - 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::time::SimTime;

    fn queue(pool: &mut PacketPool, low: &[bool]) -> Ring {
        low.iter()
            .map(|&l| {
                let mut p = Packet::data(0, 0, 0, 1040, 0, SimTime::ZERO);
                p.low_prio = l;
                pool.alloc(p)
            })
            .collect()
    }

    #[test]
    fn each_rule_picks_its_victim() {
        let mut pool = PacketPool::new();
        let mut rng = Rng::new(3);
        let q = queue(&mut pool, &[false, true, true, false, false]);
        assert_eq!(Victim::Tail.pick(&q, &pool, &mut rng, 0), 4);
        assert_eq!(Victim::Front.pick(&q, &pool, &mut rng, 0), 0);
        assert_eq!(Victim::Front.pick(&q, &pool, &mut rng, 1), 1);
        assert_eq!(Victim::LowPriorityFirst.pick(&q, &pool, &mut rng, 0), 2);
        let mut r2 = Rng::new(3);
        let want = (r2.uniform() * 5.0) as usize;
        assert_eq!(Victim::Random.pick(&q, &pool, &mut rng, 0), want);
        // RED's front index on a queue holding only the arrival is the arrival.
        let one = queue(&mut pool, &[false]);
        assert_eq!(Victim::Front.pick(&one, &pool, &mut rng, 1), 0);
        // No low-priority packet: the arrival.
        let q = queue(&mut pool, &[false, false]);
        assert_eq!(Victim::LowPriorityFirst.pick(&q, &pool, &mut rng, 0), 1);
    }

    #[test]
    fn red_victim_from_ns2_flags_or_rule() {
        let cfg = |j: &str| serde_json::from_str::<RedConfig>(j).unwrap();
        assert_eq!(Victim::from_red_config("q", &cfg("{}")), Ok(Victim::Tail));
        assert_eq!(Victim::from_red_config("q", &cfg(r#"{"drop_front": true, "drop_rand": true}"#)), Ok(Victim::Front));
        assert_eq!(Victim::from_red_config("q", &cfg(r#"{"drop_rand": true}"#)), Ok(Victim::Random));
        assert_eq!(
            Victim::from_red_config("q", &cfg(r#"{"victim": "low_priority_first"}"#)),
            Ok(Victim::LowPriorityFirst)
        );
        let e =
            Victim::from_red_config("links[1].queue", &cfg(r#"{"victim": "tail", "drop_rand": true}"#)).unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), ("links[1].queue.victim", "tail"));
    }
}
