"""The modules a pyspider project imports from pyspider.libs."""
