"""`ks.tree`, Keras 3's functions over nested structures."""

from collections import namedtuple

import pytest

import kerasish as ks

Point = namedtuple("Point", "x y")


def test_flatten_and_pack_follow_sorted_dict_keys_and_keep_none_as_a_leaf():
    structure = {"b": [1, None], "a": Point(2, (3,))}
    assert ks.tree.flatten(structure) == [2, 3, 1, None]
    assert ks.tree.pack_sequence_as(structure, [5, 6, 7, 8]) == {"b": [7, 8],
                                                                  "a": Point(5, (6,))}
    with pytest.raises(ValueError, match="the structure has 4 leaves but flat_sequence has 3"):
        ks.tree.pack_sequence_as(structure, [1, 2, 3])
    assert ks.tree.is_nested([]) and not ks.tree.is_nested("text")


def test_paths_name_indices_and_keys():
    assert ks.tree.flatten_with_path({"a": [5, {"z": 6}]}) == [(("a", 0), 5),
                                                                (("a", 1, "z"), 6)]
    ks.tree.assert_same_paths({"a": 1, "b": [2]}, {"b": [0], "a": 9})
    with pytest.raises(ValueError, match="paths only in the first"):
        ks.tree.assert_same_paths({"a": 1}, {"b": 1})


def test_map_structure_and_its_checks():
    assert ks.tree.map_structure(lambda a, b: a * b, [1, (2, 3)], [4, (5, 6)]) == [4, (10, 18)]
    assert ks.tree.map_structure(lambda a: 0, [None, 1], none_is_leaf=False) == [None, 0]
    with pytest.raises(ValueError, match="the structures differ"):
        ks.tree.map_structure(lambda a, b: a, [1, 2], [1, [2]])
    ks.tree.assert_same_structure([1, (2,)], [3, (4,)])
    with pytest.raises(ValueError, match="the structures differ"):  # a list is not a tuple
        ks.tree.assert_same_structure([1, (2,)], (3, [4]))
    assert ks.tree.map_structure_up_to({"a": None, "b": None}, len,
                                       {"a": [1, 2], "b": "xyz"}) == {"a": 2, "b": 3}
    with pytest.raises(ValueError, match="does not nest as"):
        ks.tree.map_structure_up_to((None, None), len, [1])


def test_traverse_shapes_and_lists_to_tuples():
    doubled = ks.tree.traverse(lambda x: x * 2 if isinstance(x, int) else None, [1, {"k": 2}])
    assert doubled == [2, {"k": 4}]
    pruned = ks.tree.traverse(lambda x: ks.tree.MAP_TO_NONE if x == [2] else None, [1, [2]])
    assert pruned == [1, None]
    sums = ks.tree.traverse(lambda x: sum(x) if isinstance(x, tuple) else None, (1, (2, 3)),
                            top_down=False)
    assert sums == 6
    assert ks.tree.map_shape_structure(lambda s: s[0], {"x": (3, None), "y": [(4, 5)]}) == {
        "x": 3, "y": [4]}
    assert ks.tree.lists_to_tuples({"a": [1, [2]], "p": Point([3], 4)}) == {
        "a": (1, (2,)), "p": Point((3,), 4)}
