//! Screening: ordering a review's candidates so that the relevant ones come
//! first, by active learning on the index's own features. After each
//! include/exclude decision a linear model retrains ([`learner`]) on TF-IDF of
//! title and abstract, the citation neighbourhood and stored vectors
//! ([`features`]) and proposes the most likely relevant undecided candidate.
//! [`review`] makes reviews and records decisions (in the store's
//! `screen_*` tables), [`next`] proposes what to screen next and why,
//! [`status`] estimates what is left and when to stop.
//! [`simulate`] runs SYNERGY's protocol on a labelled review; [`labels`]
//! reads labels files.

pub mod features;
pub mod labels;
pub mod learner;
pub mod next;
pub mod review;
pub mod select;
pub mod simulate;
pub mod status;

pub use features::Weights;
pub use labels::{LabelledId, read_labels};
pub use learner::{Learner, SvmParams};
pub use simulate::{Priors, SimulateOptions, SimulatedOrder};
