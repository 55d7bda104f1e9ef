"""Shapes for the bench prompt-file tests."""


def area(width, height):
    """Area of a rectangle."""
    return width * height


def perimeter(width, height):
    return 2 * (width + height)
