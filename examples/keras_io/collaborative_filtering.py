"""keras-io's "Collaborative Filtering for Movie Recommendations", on synthetic ratings.

keras-io trains on MovieLens (which cannot be downloaded here); this port makes a
ratings table of the same form from planted user and movie factors, so what the
model should recover is known. The model is keras-io's `RecommenderNet`, a
subclassed `keras.Model`: user and movie embeddings (L2-regularized, He-normal)
with per-user and per-movie biases, their dot product through `ops.tensordot`,
and a sigmoid, trained with binary cross-entropy on ratings scaled to [0, 1].
(keras-io's `ops.tensordot(user_vector, movie_vector, 2)` contracts the batch axis
too, so the dot product is one number per batch and the biases do the work: kept as
keras-io has it, it learns the same in Keras.)
It then recommends the top movies for one user, as keras-io does, and says how
many of them are in that user's planted top 10.

Usage (from the repository root):

    python examples/keras_io/collaborative_filtering.py            # 600 users, 5 epochs
    python examples/keras_io/collaborative_filtering.py --quick    # 200 users, 3 epochs
    KERAS_IO_LIBRARY=keras python examples/keras_io/collaborative_filtering.py --quick
"""

from __future__ import annotations

import argparse

import numpy as np
from _library import LIBRARY, keras

layers, ops = keras.layers, keras.ops
EMBEDDING_SIZE = 50


def make_ratings(num_users: int, num_movies: int, per_user: int, rng):
    """(user, movie) pairs and ratings 0.5-5.0 from planted movie qualities, user
    generosities and 4 taste factors."""
    users = rng.normal(size=(num_users, 4))
    movies = rng.normal(size=(num_movies, 4))
    quality = 2.0 * rng.normal(size=(1, num_movies))
    generosity = rng.normal(size=(num_users, 1))
    affinity = users @ movies.T + quality + generosity
    affinity += rng.normal(0.0, 0.3, (num_users, num_movies))
    pairs = np.array([(user, movie) for user in range(num_users)
                      for movie in rng.choice(num_movies, per_user, replace=False)])
    scores = affinity[pairs[:, 0], pairs[:, 1]]
    ratings = np.clip(np.round((scores - scores.min()) / np.ptp(scores) * 9) / 2 + 0.5, 0.5, 5)
    return pairs, ratings.astype("float32"), affinity


class RecommenderNet(keras.Model):
    def __init__(self, num_users, num_movies, embedding_size, **kwargs):
        super().__init__(**kwargs)
        self.user_embedding = layers.Embedding(
            num_users, embedding_size, embeddings_initializer="he_normal",
            embeddings_regularizer=keras.regularizers.l2(1e-6))
        self.user_bias = layers.Embedding(num_users, 1)
        self.movie_embedding = layers.Embedding(
            num_movies, embedding_size, embeddings_initializer="he_normal",
            embeddings_regularizer=keras.regularizers.l2(1e-6))
        self.movie_bias = layers.Embedding(num_movies, 1)

    def call(self, inputs):
        user_vector = self.user_embedding(inputs[:, 0])
        user_bias = self.user_bias(inputs[:, 0])
        movie_vector = self.movie_embedding(inputs[:, 1])
        movie_bias = self.movie_bias(inputs[:, 1])
        dot_user_movie = ops.tensordot(user_vector, movie_vector, 2)
        x = dot_user_movie + user_bias + movie_bias
        return ops.nn.sigmoid(x)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--quick", action="store_true", help="200 users, 300 movies, 3 epochs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    num_users, num_movies, per_user = (200, 300, 60) if args.quick else (600, 1000, 100)
    epochs = 3 if args.quick else args.epochs
    pairs, ratings, affinity = make_ratings(num_users, num_movies, per_user, rng)
    order = rng.permutation(len(pairs))
    x = pairs[order]
    y = (ratings[order] - ratings.min()) / (ratings.max() - ratings.min())
    train_indices = int(0.9 * len(x))
    x_train, x_val, y_train, y_val = x[:train_indices], x[train_indices:], \
        y[:train_indices], y[train_indices:]

    model = RecommenderNet(num_users, num_movies, EMBEDDING_SIZE)
    model.compile(loss=keras.losses.BinaryCrossentropy(),
                  optimizer=keras.optimizers.Adam(learning_rate=0.001))
    history = model.fit(x=x_train, y=y_train, batch_size=args.batch_size, epochs=epochs,
                        verbose=2, validation_data=(x_val, y_val))

    user_id = 0
    watched = pairs[pairs[:, 0] == user_id, 1]
    not_watched = np.setdiff1d(np.arange(num_movies), watched)
    user_movie_array = np.stack([np.full(len(not_watched), user_id), not_watched], axis=1)
    predicted = model.predict(user_movie_array, verbose=0).flatten()
    top_10 = not_watched[np.argsort(predicted)[-10:][::-1]]
    planted = not_watched[np.argsort(affinity[user_id, not_watched])[-10:]]
    hits = len(set(top_10.tolist()) & set(planted.tolist()))
    val_loss = history.history["val_loss"][-1]
    print(f"collaborative_filtering ({LIBRARY}): val loss {val_loss:.4f}; user {user_id}'s top 10 "
          f"unseen movies: {top_10.tolist()} ({hits} of the planted top 10)")
    return {"val_loss": float(val_loss), "hits": hits,
            "first_val_loss": float(history.history["val_loss"][0])}


if __name__ == "__main__":
    main()
