"""One partition per chunker configuration declared in the chunker config file."""
from dagster import DynamicPartitionsDefinition

chunk_set_partitions = DynamicPartitionsDefinition(name="chunk_sets")
